"""day11's rounds of tool calls (lessons/day11/tools.py): a barrier tells calls made side by side
from calls made one after another by how many were held together, never by a clock."""
import threading

from mock_llm import load_world

Round = load_world("day11").module.Round


def run_in_threads(held, workers: int, calls: int) -> None:
    """`calls` calls through `workers` threads, each making its share one after another."""
    def work(share):
        for n in share:
            held.call("get_news", f"T{n}", 0.1 + n / 100)
    threads = [threading.Thread(target=work, args=(range(w, calls, workers),)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)


def test_calls_made_side_by_side_are_held_together():
    held = Round(10)
    run_in_threads(held, workers=10, calls=10)
    assert held.peak == 10 and len(held.calls) == 10


def test_calls_made_one_after_another_are_held_one_at_a_time():
    held = Round(10)
    run_in_threads(held, workers=1, calls=10)
    assert held.peak == 1 and len(held.calls) == 10
    assert held.serial() == round(sum(0.1 + n / 100 for n in range(10)), 1)  # the waits as set


def test_a_pool_of_two_is_held_two_at_a_time():
    held = Round(10)
    run_in_threads(held, workers=2, calls=10)
    assert held.peak == 2 and len(held.calls) == 10


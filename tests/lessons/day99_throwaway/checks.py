"""The throwaway lesson's checks: they use only the authoring API, validator.checking."""
from validator.checking import check, expect, registry_arg


@check("1.1", points=1, en="runs the named tool with the arguments", zh="用参数调用指定工具")
def test_runs_the_tool(learner, world):
    got = learner.call("run_tool", registry_arg(["km_to_miles"]), "km_to_miles", {"km": 10})
    expected = world.tools["km_to_miles"](10)
    expect(got == expected, "wrong_result", expected=expected, got=got)


@check("1.2", points=2, en="the answer holds the converted distance", zh="答案里有换算后的距离")
def test_the_loop(learner, world):
    run = learner.run_agent("agent", "marathon", registry_arg(["km_to_miles"]))
    expected = world.tools["km_to_miles"](run.scenario.values["km"])
    expect(isinstance(run.answer, str) and expected in run.answer, "wrong_result", expected=expected,
           got=run.answer)
    expect(len(run.exchanges) == 2, "wrong_result", expected="2 model calls", got=len(run.exchanges))

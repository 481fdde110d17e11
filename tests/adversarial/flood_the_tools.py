# Thousands of tool calls, and one enormous tool input: the grader's side must stay bounded.
def execute_tool(tools, action, action_input):
    calculator = next(tool for tool in tools if tool.name == "Calculator")
    for _ in range(5000):
        calculator.func("1 + 1")
    return None


def get_tools_description(tools):
    return str(tools[0].func("1" + " + 1" * 2_000_000))  # about 8 MB of arithmetic

"""The grader's side of isolation: jail.py says what a child may see and do and starts it so
(the child's side, child/enter_jail.py, builds it); forkserver.py starts children as forks of a
warm sandbox, for class runs and watch."""

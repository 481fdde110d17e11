"""For lesson authors: `validate.py check-lesson` (rules.py: every rule a lesson must satisfy;
texts.py: its texts in both languages; course.py: what the lessons' order generates) and
`validate.py new` (scaffold.py, with the files of scaffolds.py); command.py runs them
(their arguments: validator/cli/authors.py)."""

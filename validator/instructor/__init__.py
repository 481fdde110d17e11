"""What an instructor runs: a class graded (classroom.py: submissions, workers, copies,
gradebooks, overrides, shards), the course released, and the platforms that grade it
(Gradescope and GitHub Classroom in platforms.py, PrairieLearn, shard recipes)."""

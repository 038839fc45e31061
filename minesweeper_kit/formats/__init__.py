"""File formats: the kit's JSON game dicts and JSON-lines logs, and the seeds' own formats
(Project 10 board files and print format, Sweepmine's grader input, bot position and log)."""

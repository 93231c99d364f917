"""The course's own verdicts: ``editions`` (every edition's grading figures, once), ``grade`` (an
agent graded as an edition grades it) and ``report`` (the reports as text)."""

"""The course's own verdicts: ``editions`` (every edition's grading figures, once), ``build`` (agent
folders in every course language, built as build.sh does), ``grade`` (an agent graded as an
edition grades it), ``tournament`` (the class round-robin), ``report`` (the reports as text) and ``literals`` (the
numbers an agent's own code holds, found and rewritten for tuning)."""

"""The course's own verdicts: ``editions`` (every edition's grading figures, once), ``build`` (agent
folders in every course language, built as build.sh does), ``grade`` (an agent graded as an
edition grades it), ``tournament`` (the class round-robin), ``report`` (the reports as text),
``agent_constants`` (the numbers an agent's own code holds, found for tuning), ``constant_roles`` (what
each is for: an evaluation weight, a setting or a counter, and the range it is tuned in) and
``rewrite`` (those numbers rewritten, and the diff that shows it)."""

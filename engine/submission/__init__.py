"""The course submission: writing it (``bundle``) and measuring its speed (``speed``), and what a
program player's move costs in the sandbox, in parts (``movecost``)."""

"""The course submission: writing it (``bundle``) and measuring its speed (``bench``)."""

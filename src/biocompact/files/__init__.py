"""Files as the stages read and write them: written whole or not at all (`atomic`), and
downloaded with retries and a digest (`download`); beneath every stage."""

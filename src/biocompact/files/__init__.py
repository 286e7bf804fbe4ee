"""Files as the stages read and write them: written whole or not at all (`atomic`),
downloaded with retries and a digest (`download`), and a rule's named files as its entry
point reads them (`rule_files`); beneath every stage."""

"""Test-wide settings."""
import os

# the first-run compile helper (cardzoo.firstrun) is for a person's first env(): the test workers
# already keep both cores busy, so a helper would only compete with them
os.environ["CARDZOO_COMPILE_HELPER"] = "0"

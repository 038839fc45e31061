"""Speed and strength measurements (`make bench`); never run as tests."""

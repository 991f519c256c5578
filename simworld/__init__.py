"""The synthetic world: a shot simulator with exact ground truth, and a camera renderer."""

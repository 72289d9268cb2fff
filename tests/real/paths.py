"""Where the tests' data lives: the repo's fixtures and the read-only shared folder beside the repo."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
FIXTURES = REPO / "tests" / "fixtures"
BROKEN = FIXTURES / "broken"
GOOD_CONFIG = FIXTURES / "good" / "lab-with-nvidia.toml"
LAB_BASE = SHARED / "fixtures" / "containerd" / "lab-config.toml.base"

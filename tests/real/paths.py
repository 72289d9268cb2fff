"""Where the tests' data lives: the repository's fixtures (tests/fixtures/), nothing outside it."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
BROKEN = FIXTURES / "broken"
GOOD_CONFIG = FIXTURES / "good" / "lab-with-nvidia.toml"
LAB_BASE = FIXTURES / "containerd" / "lab-config.toml.base"
CDI_SCHEMA = FIXTURES / "cdi-schema"

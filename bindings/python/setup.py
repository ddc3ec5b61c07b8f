# bindings/python/setup.py - the ticksync package: ctypes over libticksync.
# A plain setup.py, so that `pip install ./bindings/python` builds it with
# the venv's own setuptools, with no download.
from setuptools import setup

setup(
    name="ticksync",
    version="0.1.0",
    description="Game clock synchronisation: the server's time, its error and the game's ticks, over libticksync",
    packages=["ticksync"],
    python_requires=">=3.8",
)

"""make course: the checks before installing, the installer, the learner's JupyterLab."""

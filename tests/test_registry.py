"""The model registry (docs/writing-a-model.md): built-in models and models other packages add through the
``legsim.models`` entry-point group."""

from __future__ import annotations

import sys

import pytest

from legsim import registry
from legsim.errors import InputError


@pytest.fixture
def plugin_package(tmp_path, monkeypatch):
    """An installed distribution 'legsim-plugin-test' whose entry points register the bouncing ball's builder
    as 'plugin_ball' and try to take the built-in name 'slip'."""
    info = tmp_path / "legsim_plugin_test-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: legsim-plugin-test\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[legsim.models]\n"
        "plugin_ball = legsim.examples.bouncing_ball:build_model\n"
        "slip = legsim.examples.bouncing_ball:build_model\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    registry._installed_models.cache_clear()
    yield
    registry._installed_models.cache_clear()


def test_an_installed_packages_model_is_listed_and_built(plugin_package):
    models = registry.available_models()
    assert models["plugin_ball"] == "legsim.examples.bouncing_ball:build_model"
    assert set(registry.BUILTIN_MODELS) <= set(models)
    ball = registry.build("plugin_ball")
    assert ball.state_names == ("y", "v")


def test_a_plugin_cannot_take_a_built_in_name(plugin_package):
    assert registry.available_models()["slip"] == registry.BUILTIN_MODELS["slip"]
    assert "footx" in registry.build("slip").state_names


def test_an_unknown_name_gets_the_closest_including_installed_models(plugin_package):
    with pytest.raises(InputError, match="unknown model 'plugin_bal'.*plugin_ball"):
        registry.build("plugin_bal")

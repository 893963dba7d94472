"""A setting that is gone (models.allow_download) still loads from an older config file or the environment and
changes nothing; a typo beside it is still an error."""

import pytest

from searchapp.base.config import load_config
from searchapp.base.errors import ConfigError


def test_an_older_config_file_naming_allow_download_loads(tmp_path):
    (tmp_path / "config.toml").write_text("[models]\nallow_download = true\nbatch_size = 8\n")
    cfg = load_config(tmp_path, env={})
    assert cfg.models.batch_size == 8 and not hasattr(cfg.models, "allow_download")
    cfg = load_config(tmp_path / "other", env={"SEARCHAPP_MODELS__ALLOW_DOWNLOAD": "true"})
    assert not hasattr(cfg.models, "allow_download")


def test_a_typo_beside_it_is_still_an_error(tmp_path):
    (tmp_path / "config.toml").write_text("[models]\nallow_download = true\nbatch_sise = 8\n")
    with pytest.raises(ConfigError, match="unknown setting models.batch_sise"):
        load_config(tmp_path, env={})

"""Edges of the section 9 surface: calls before reset, odd inputs, state left untouched."""
import numpy as np
import pytest

import shengji_env
from cardzoo.options import NotResetError


def test_batch_legal_plays_before_reset_raises_not_reset_error():
    # docs/env_contract_inputs.md: everything that reads a game needs a started episode; before the
    # first reset the records are blanks, so a list of plays read from them means nothing
    g = shengji_env.BatchGame(2)
    with pytest.raises(NotResetError, match=r"call reset\(\) before legal_plays\(\)"):
        g.legal_plays(0)
    with pytest.raises(ValueError):
        g.reset(seed=-1)
    with pytest.raises(NotResetError):  # a failed first reset starts nothing either
        g.legal_plays(0)
    g.reset(seed=0)
    assert g.legal_plays(0).shape[1] == 54

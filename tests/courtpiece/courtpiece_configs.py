"""Court Piece configurations every env-surface test runs on: the five variants, the band Mendi Coat and
match episodes with the house options (spec section 6)."""

CONFIGS = [
    dict(variant="single_sar"),
    dict(variant="double_sar"),
    dict(variant="chhupa_rang"),
    dict(variant="be_rang"),
    dict(variant="mendi_coat"),
    dict(variant="mendi_coat", mendi_trump="band"),
    dict(variant="single_sar", episode="match", match_target=3),
    dict(variant="double_sar", episode="match", match_target=3, change_trump=True),
    dict(variant="chhupa_rang", episode="match", match_target=2, change_cards=True),
    dict(variant="be_rang", episode="match", match_target=3, reward="win_loss"),
    dict(variant="mendi_coat", mendi_trump="band", episode="match", match_target=2),
]

"""The Sheng Ji rules as numba kernels, one module per rule family of docs/rules/shengji.md.

    phases    phase and action ids (sections 4, 9.2)
    order     SJ-1..SJ-3: seats, points, effective suit, position
    declare   SJ-4: the deal, declarations, windows
    kitty     SJ-4.9, SJ-5: kitty flip, pick-up, bury
    combos    SJ-6, SJ-7.2: components, canonical decomposition
    lead      SJ-7: executing a lead, the throw check
    follow    SJ-8: follow obligations (match value), the FOLLOW mask
    trick     SJ-9: moving played cards, play strength, the trick winner
    score     SJ-10, SJ-11: points, kitty bonus, levels, match end
    step      section 4 masks, applying an action and everything automatic
    bits      the legal sets as bit sets (rollout)
    rollout   random rollouts in one call
    plays     the legal-play enumerator (legal_plays)
    scratch   the work arrays and their named offsets
    by_name   the rule functions by name, in plain Python
"""

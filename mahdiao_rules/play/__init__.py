"""Play: the trick engine (``tricks``: 捉, 滅 and the winner of each trick, recorded tricks
replayed, a random play) and automatic play by a policy (``policies``).
"""

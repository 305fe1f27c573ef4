"""ROTTO, the biped with a linear drive in every joint (Konyev 2011 Chapter 4; contact digest §4.3):
placeholder geometry (:mod:`.params`), the multibody model and leg kinematics (:mod:`.model`), the
drives' rods (:mod:`.linkage`), the robot on the assembly layer with its drive position loops and
static walking (:mod:`.robot`), and ``legsim demo rotto_walk`` (:mod:`.demo`)."""

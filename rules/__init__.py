"""The pure core of Umpire: the scene model, table geometry, dice and the rulesets.

Never imports cv2, flask, pupil_apriltags or the `vision` / `webui` packages: it reads a scene
(the `umpire-scene/1` JSON) and answers questions about it.
"""

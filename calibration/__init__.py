"""Geometry between the camera image and the table, and length units.

Importing this package is cheap and pulls in no OpenCV: modules that need cv2 import it
themselves, so `rules/` may use `calibration.units` and stay pure.
"""

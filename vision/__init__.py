"""From camera frames to a scene: frame sources, the tag detector adapter, tracking and scene
building. (Filled by the camera issue; nothing here yet.)"""

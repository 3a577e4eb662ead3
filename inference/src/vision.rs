//! Image labels (EfficientNet-Lite0 through tract), faces (rustface) and picture facts.

//! What an asset is, its frames and its sound.

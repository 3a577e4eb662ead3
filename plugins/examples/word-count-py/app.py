"""The component's entry point (componentize-py's app module): exports WordCount."""

from trellis_sdk.guest import export_space_module
from word_count import WordCount

ModuleInfo, SpaceHooks = export_space_module(WordCount())

"""The component's entry point (componentize-py's app module): do not import it in tests."""

from module import Module
from trellis_sdk.guest import export_space_module

ModuleInfo, SpaceHooks = export_space_module(Module())

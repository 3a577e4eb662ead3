"""The component's entry point (componentize-py's app module): exports Poll."""

from trellis_sdk.guest import export_space_module
from poll import Poll

ModuleInfo, SpaceHooks = export_space_module(Poll())

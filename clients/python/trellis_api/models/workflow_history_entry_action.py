from enum import StrEnum


class WorkflowHistoryEntryAction(StrEnum):
    MOVED = "MOVED"
    PATCHED = "PATCHED"
    STARTED = "STARTED"

    def __str__(self) -> str:
        return str(self.value)

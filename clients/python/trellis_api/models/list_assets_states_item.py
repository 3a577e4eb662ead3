from enum import StrEnum


class ListAssetsStatesItem(StrEnum):
    APPROVED = "APPROVED"
    AWAITING_APPROVAL = "AWAITING_APPROVAL"
    AWAITING_UPLOAD = "AWAITING_UPLOAD"
    DISABLED = "DISABLED"
    ENABLED = "ENABLED"
    REJECTED = "REJECTED"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class SpaceViewRole(StrEnum):
    MEMBER = "member"
    OWNER = "owner"
    READER = "reader"

    def __str__(self) -> str:
        return str(self.value)

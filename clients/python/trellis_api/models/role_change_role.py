from enum import StrEnum


class RoleChangeRole(StrEnum):
    INVITER = "inviter"
    MEMBER = "member"

    def __str__(self) -> str:
        return str(self.value)

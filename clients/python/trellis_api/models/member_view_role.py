from enum import StrEnum


class MemberViewRole(StrEnum):
    INVITER = "inviter"
    MEMBER = "member"
    OWNER = "owner"

    def __str__(self) -> str:
        return str(self.value)

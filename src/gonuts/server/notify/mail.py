"""(being written)"""
from typing import Any
def mailer_from_env(env: Any) -> None:
    return None
class MailChannel: pass

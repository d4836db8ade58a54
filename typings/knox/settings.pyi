class _Constants:
    TOKEN_KEY_LENGTH: int
    DIGEST_LENGTH: int
    MAXIMUM_TOKEN_PREFIX_LENGTH: int

CONSTANTS: _Constants

//! Black-box tests: each test starts the real server and talks HTTP to it.

mod smoke;

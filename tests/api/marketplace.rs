//! The marketplace (conventions 4, 6, 12, 13): the listing life cycle with a real operator, the public
//! listing, registrations in each membership mode, and the trending ranking with replaced rule modules.

mod listings;
mod registrations;
mod takedown;
mod trending;

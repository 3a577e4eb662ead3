//! Code the test modules share: building documents, calling routes, and the media backends.
//! Nothing here is a test; each module serves the resource its name says.

pub mod analysis;
pub mod assets;
pub mod channels;
pub mod forms;
pub mod live;
pub mod logs;
pub mod marketplace;
pub mod media;
pub mod messages;
pub mod modules;
pub mod outage;
pub mod spaces;
pub mod workflow;

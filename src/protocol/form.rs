//! placeholder until the form model lands

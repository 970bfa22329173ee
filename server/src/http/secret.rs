//! Comparing secrets (the `/mcp` bearer tokens, the admin token) in time that does not depend on
//! where, or whether, they differ: no early exit on the first different byte or on a length mismatch.

/// Whether `a` and `b` are equal, reading every byte of the longer one whatever the content: the
/// length difference is folded into the result, never returned early.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut difference = (a.len() ^ b.len()) as u64;
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied().unwrap_or(0), b.get(i).copied().unwrap_or(0));
        difference = std::hint::black_box(difference | u64::from(x ^ y));
    }
    difference == 0
}

/// Whether the token a client `sent` is the `expected` one. Both are hashed first, so the time does
/// not even depend on the expected token's length, then the digests are compared in constant time.
pub fn same_token(sent: &str, expected: &str) -> bool {
    use sha2::Digest;
    let (a, b) = (sha2::Sha256::digest(sent.as_bytes()), sha2::Sha256::digest(expected.as_bytes()));
    constant_time_eq(&a, &b)
}

/// Whether `sent` is one of `known`, comparing it with every one of them (no early exit on a match).
pub fn one_of(sent: &str, known: &[String]) -> bool {
    known.iter().fold(false, |found, token| found | same_token(sent, token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_unequal_and_different_lengths() {
        assert!(constant_time_eq(b"", b""));
        assert!(constant_time_eq(b"s3cret", b"s3cret"));
        assert!(!constant_time_eq(b"s3cret", b"s3creT"), "last byte differs");
        assert!(!constant_time_eq(b"s3cret", b"x3cret"), "first byte differs");
        assert!(!constant_time_eq(b"s3cret", b"s3cret2"), "longer");
        assert!(!constant_time_eq(b"s3cret", b"s3cre"), "a prefix");
        assert!(!constant_time_eq(b"", b"a"));
        // A shorter input padded with zero bytes is still not equal: the lengths count.
        assert!(!constant_time_eq(b"ab", b"ab\0"));
        assert!(same_token("tok", "tok"));
        assert!(!same_token("tok", "tok "));
        assert!(!same_token("", "tok"));
    }

    #[test]
    fn one_of_many() {
        let known = vec!["alpha".to_owned(), "beta".to_owned()];
        assert!(one_of("alpha", &known));
        assert!(one_of("beta", &known));
        assert!(!one_of("gamma", &known));
        assert!(!one_of("alph", &known));
        assert!(!one_of("alpha", &[]));
    }
}

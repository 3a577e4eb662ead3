//! Word accuracy, the measure the speech targets are stated in.

/// The share of `reference`'s words a transcript got right: 1 − word error rate (substitutions,
/// deletions and insertions over the reference's word count, floored at 0), ignoring case and
/// punctuation. For tests and benchmarks.
pub fn word_accuracy(reference: &str, transcript: &str) -> f64 {
    let (r, t) = (words(reference), words(transcript));
    if r.is_empty() {
        return if t.is_empty() { 1.0 } else { 0.0 };
    }
    // Edit distance over words, one row at a time.
    let mut previous: Vec<usize> = (0..=t.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut row = vec![i + 1; t.len() + 1];
        for (j, tw) in t.iter().enumerate() {
            let substitution = previous[j] + usize::from(rw != tw);
            row[j + 1] = substitution.min(previous[j + 1] + 1).min(row[j] + 1);
        }
        previous = row;
    }
    (1.0 - previous[t.len()] as f64 / r.len() as f64).max(0.0)
}

/// Lower-case words with punctuation dropped (`Don't` → `dont`, `fox.` → `fox`), hyphenated words
/// split, and the titles transcripts abbreviate spelled out (`Mr.` → `mister`), as usual for word error
/// rates.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '-' || c == '—')
        .map(|w| w.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>())
        .filter(|w| !w.is_empty())
        .map(|w| match w.as_str() {
            "mr" => "mister".to_owned(),
            "mrs" => "missus".to_owned(),
            "dr" => "doctor".to_owned(),
            _ => w,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_accuracy_counts_edits_against_the_reference() {
        assert_eq!(word_accuracy("The quick brown fox.", "the quick brown fox"), 1.0);
        assert_eq!(word_accuracy("the quick brown fox", "the quick fox"), 0.75);
        assert_eq!(word_accuracy("the quick brown fox", "a quick brown fox jumps"), 0.5);
        assert_eq!(word_accuracy("one two", "nothing like it at all"), 0.0);
        assert_eq!(word_accuracy("and mister john was ill disposed", "And Mr. John was ill-disposed."), 1.0);
    }
}

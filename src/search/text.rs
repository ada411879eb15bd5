//! Turning catalog text and queries into comparable terms.
//!
//! Catalog names are identifiers (`manage_gameobject`, `set_active_tool`), descriptions are prose
//! with C# identifiers in them (`RectTransform`, `Time.fixedDeltaTime`), and queries are whatever
//! a person types. The same routine runs on all three so that a term means the same thing on both
//! sides: split on anything that is not a letter or digit, split camelCase, lower-case, drop
//! stopwords and bare numbers, and reduce inflections with a small suffix stemmer.
//!
//! A camelCase word also yields its joined form (`GameObject` → `game`, `object`, `gameobject`),
//! because catalog identifiers often write as one word what prose writes as two.

/// Words that carry no meaning for finding a tool. Kept short on purpose: verbs such as `get`,
/// `set`, `add`, `all`, `up`, `down` name actions and must stay.
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could",
    "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "just", "me", "my", "of", "on", "or", "our", "please", "should", "so", "some", "that",
    "the", "their", "them", "then", "there", "these", "this", "those", "to", "us", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
    "you", "your", "yet", "i'm", "let", "lets", "want", "need", "like",
];

/// Inflections the suffix rules get wrong, mapped to the stem their base form gets.
const IRREGULAR: &[(&str, &str)] = &[
    ("settings", "setting"),
    ("setting", "setting"),
    ("embedded", "embed"),
    ("embedding", "embed"),
    ("embeds", "embed"),
    ("children", "child"),
    ("ran", "run"),
    ("made", "mak"),
    ("built", "build"),
    ("began", "begin"),
    ("data", "data"),
    ("axes", "axis"),
    ("indices", "index"),
    ("vertices", "vertex"),
];

/// Words ending in `ed`/`ing`/`s` that are not inflections.
const KEEP_AS_IS: &[&str] = &[
    "embed",
    "speed",
    "seed",
    "need",
    "feed",
    "bed",
    "red",
    "shed",
    "bleed",
    "string",
    "thing",
    "bus",
    "alias",
    "canvas",
    "physics",
    "this",
    "status",
    "always",
    "previous",
    "various",
    "axis",
    "analysis",
    "gas",
    "lens",
    "is",
    "was",
    "has",
    "does",
    "plus",
    "bounds",
    "mass",
    "class",
    "press",
    "less",
    "process",
    "access",
    "progress",
    "success",
    "focus",
    "radius",
    "ring",
    "king",
    "during",
    "nothing",
    "something",
    "everything",
    "anything",
    "bring",
    "spring",
    "sing",
    "ping",
    "ceiling",
    "ding",
    "wing",
];

pub(crate) fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// Reduces an inflected lower-case word to a stem shared with its base form
/// (`objects` → `object`, `creating`/`created`/`create` → `creat`, `running` → `run`).
/// Not a linguistic stemmer: it only has to map both sides of a comparison the same way.
pub(crate) fn stem(word: &str) -> String {
    if let Some((_, s)) = IRREGULAR.iter().find(|(w, _)| *w == word) {
        return (*s).to_string();
    }
    if word.len() <= 3 || KEEP_AS_IS.contains(&word) || !word.is_ascii() {
        return word.to_string();
    }
    let mut w = word.to_string();
    // Plurals and third person.
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if w.ends_with("sses")
        || w.ends_with("xes")
        || w.ends_with("ches")
        || w.ends_with("shes")
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.truncate(w.len() - 1);
    }
    if KEEP_AS_IS.contains(&w.as_str()) {
        return w;
    }
    // Participles and gerunds.
    let mut stripped = false;
    if let Some(base) = w.strip_suffix("ied").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if let Some(base) = w
        .strip_suffix("ing")
        .filter(|b| b.len() >= 3 && has_vowel(b))
    {
        w = base.to_string();
        stripped = true;
    } else if let Some(base) = w
        .strip_suffix("ed")
        .filter(|b| b.len() >= 3 && has_vowel(b) && !b.ends_with('e'))
    {
        w = base.to_string();
        stripped = true;
    }
    if stripped {
        // running → run, stopped → stop; but add/call/pass keep their double letter.
        let b = w.as_bytes();
        let n = b.len();
        if n >= 3 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z' | b'd' | b'f') {
            w.truncate(n - 1);
        }
    }
    // A final silent e: create/creat(ed|ing), save/sav(ed|ing).
    if w.len() > 3 && w.ends_with('e') && !w.ends_with("ee") {
        w.truncate(w.len() - 1);
    }
    w
}

fn has_vowel(s: &str) -> bool {
    s.bytes()
        .any(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'))
}

/// One raw word of a text, with how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// Lower-case surface form, before stemming.
    pub surface: String,
    /// True for the joined form of a camelCase run (`gameobject` from `GameObject`).
    pub joined: bool,
}

/// Splits text into lower-case words: on every non-alphanumeric character, and inside a run at
/// camelCase boundaries (`fixedDeltaTime` → fixed, delta, time; `UIScale` → ui, scale). Letter and
/// digit runs stay together (`il2cpp`, `level3`). A camelCase run also yields its joined form.
pub(crate) fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let parts = camel_parts(run);
        if parts.len() > 1 {
            for p in &parts {
                out.push(Word {
                    surface: p.to_lowercase(),
                    joined: false,
                });
            }
            out.push(Word {
                surface: run.to_lowercase(),
                joined: true,
            });
        } else {
            out.push(Word {
                surface: run.to_lowercase(),
                joined: false,
            });
        }
    }
    out
}

pub(crate) fn camel_parts(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut cuts = vec![0];
    for i in 1..chars.len() {
        let (_, prev) = chars[i - 1];
        let (at, cur) = chars[i];
        let next = chars.get(i + 1).map(|&(_, c)| c);
        let lower_to_upper = (prev.is_lowercase() || prev.is_ascii_digit()) && cur.is_uppercase();
        let acronym_end =
            prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(|n| n.is_lowercase());
        if lower_to_upper || acronym_end {
            cuts.push(at);
        }
    }
    cuts.push(run.len());
    cuts.windows(2).map(|w| &run[w[0]..w[1]]).collect()
}

/// A term as indexed and queried: the stem of a meaningful word.
pub(crate) fn term_of(surface: &str) -> Option<String> {
    if surface.is_empty() || is_stopword(surface) || surface.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Single letters ("c" of C#, "x" of x,y) match too broadly to be worth indexing.
    if surface.chars().count() < 2 {
        return None;
    }
    Some(stem(surface))
}

/// The terms of a catalog text, in order, duplicates kept (they are term frequencies).
pub(crate) fn terms(text: &str) -> Vec<String> {
    words(text)
        .iter()
        .filter_map(|w| term_of(&w.surface))
        .collect()
}

/// The first vector written in `text`: two or three numbers separated by commas, optionally
/// signed, decimal, spaced or parenthesized (`0,1,0`, `(400, 300)`, `0,-9.81,0`).
pub(crate) fn vector(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let number = |mut i: usize| -> Option<usize> {
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        (i > start && b[start..i].iter().any(u8::is_ascii_digit)).then_some(i)
    };
    let mut at = 0;
    while at < b.len() {
        let boundary = at == 0 || !b[at - 1].is_ascii_alphanumeric();
        if boundary && let Some(mut end) = number(at) {
            let mut count = 1;
            loop {
                let mut j = end;
                while j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                if j >= b.len() || b[j] != b',' {
                    break;
                }
                j += 1;
                while j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                match number(j) {
                    Some(e) => {
                        end = e;
                        count += 1;
                    }
                    None => break,
                }
            }
            let followed_by_letter = end < b.len() && b[end].is_ascii_alphabetic();
            if (2..=3).contains(&count) && !followed_by_letter {
                return Some(text[at..end].to_string());
            }
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surfaces(t: &str) -> Vec<String> {
        words(t).into_iter().map(|w| w.surface).collect()
    }

    #[test]
    fn splits_snake_camel_and_punctuation() {
        assert_eq!(surfaces("set_active_tool"), ["set", "active", "tool"]);
        assert_eq!(
            surfaces("Time.fixedDeltaTime"),
            ["time", "fixed", "delta", "time", "fixeddeltatime"]
        );
        assert_eq!(surfaces("UIScale"), ["ui", "scale", "uiscale"]);
        assert_eq!(surfaces("il2cpp Level3"), ["il2cpp", "level3"]);
        assert_eq!(
            surfaces("AddComponent<Rigidbody>"),
            ["add", "component", "addcomponent", "rigidbody"]
        );
    }

    #[test]
    fn inflections_meet_their_base_form() {
        let same = [
            ("create", "created"),
            ("create", "creating"),
            ("add", "added"),
            ("add", "adding"),
            ("move", "moving"),
            ("delete", "deleted"),
            ("spawn", "spawned"),
            ("run", "running"),
            ("stop", "stopped"),
            ("bake", "baking"),
            ("bake", "baked"),
            ("object", "objects"),
            ("entity", "entities"),
            ("scene", "scenes"),
            ("test", "tests"),
            ("test", "testing"),
            ("package", "packages"),
            ("play", "playing"),
            ("play", "played"),
            ("save", "saved"),
            ("tag", "tagged"),
            ("embed", "embedded"),
            ("setting", "settings"),
            ("class", "classes"),
            ("make", "making"),
        ];
        for (a, b) in same {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
        let different = [("set", "settings"), ("embed", "emb"), ("speed", "spe")];
        for (a, b) in different {
            assert_ne!(stem(a), stem(b), "{a} vs {b}");
        }
        assert_eq!(stem("physics"), "physics");
        assert_eq!(stem("status"), "status");
    }

    #[test]
    fn vectors_are_recognized() {
        assert_eq!(vector("move the player to 0,1,0").as_deref(), Some("0,1,0"));
        assert_eq!(vector("at (400, 300) please").as_deref(), Some("400, 300"));
        assert_eq!(vector("gravity 0,-9.81,0").as_deref(), Some("0,-9.81,0"));
        assert_eq!(vector("duplicate the tree 10 times"), None);
        assert_eq!(vector("1,2,3,4"), None);
        assert_eq!(vector("il2cpp, 512"), None);
    }

    #[test]
    fn stopwords_numbers_and_single_letters_are_dropped() {
        assert_eq!(terms("move the player to 0,1,0"), ["mov", "player"]);
        assert_eq!(terms("run this C# snippet"), ["run", "snippet"]);
    }
}

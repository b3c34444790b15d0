"""Identifiers that keep their shape, one module per family:

- `handles`: usernames and hashtags (and the handle inside an address or a link);
- `network`: e-mail addresses, URLs and IP addresses;
- `phones`: phone numbers;
- `banking`: IBANs and payment cards, check digits valid when they were;
- `dates`: dates and times;
- `generic`: anything else, character by character; `words`: the words they all draw.

Prefixes (@, #), separators (. _ -), the length of every digit run, the digit script
(Arabic-Indic stays Arabic-Indic), capitalisation, top-level domains and country codes are
kept; names inside a handle (`@MaryJohanson1987`) become other names, words other words of
about the same length, digits other digits. Each `*_generator(original, language, draws)`
reads the original once and returns a function that draws one candidate per call.
"""

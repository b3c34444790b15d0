"""A tiny BERT token-classification model, trained here, for tests that need no model hub.

`build_tiny_ner_model(folder)` makes a WordPiece tokenizer (`tokenizers`) over a few hundred
words, wraps it as `BertTokenizerFast`, trains a two-layer `BertForTokenClassification` for a
few hundred steps on synthetic sentences ("Moshe Chaya lives in Lyon") and saves both with
`save_pretrained`, so the recognizer loads it through the real `transformers.pipeline`. The
model's maximum length is 64 tokens: anything longer has to be windowed. Seeded, so every
build tags the same way.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

MAX_LENGTH = 64
LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG")

PEOPLE = (
    "Moshe Chaya",
    "Raj Avrom",
    "Marie Delattre",
    "Karim Benali",
    "Ana Silva",
    "Tom Reddle",
    "Sarah Cohen",
    "Yusuf Haddad",
    "Emma Durand",
    "Lea Martin",
    "Moshe",
    "Sarah",
)
PLACES = ("Lyon", "Paris", "Marseille", "Shrewsbury", "London", "Rabat", "Toulouse", "New York")
ORGANISATIONS = ("Acme Corp", "Globex Industries", "Initech", "Red Cross", "Umbrella Group")
FILLER = tuple(
    (
        "the a an and of to in is was for on that with as at by from this it be are have not or "
        "we they he she you i post video meeting group channel message share join tonight again "
        "friday monday march april brothers sisters city street call read more news truth people "
        "world lives works visited met said says went home today tomorrow yesterday very good bad "
        "new old big small long short first last next time day week year morning evening night "
        "here there where when why how what who which all some many few every each other another "
        "school work office market park river house car bus train road door window table book "
        "letter phone number name friend family mother father son daughter child team game music "
        "film story picture place thing way life hand head eye love hope fear help need want like "
        "know think see look come go make take give find tell ask try leave feel become keep begin "
        "seem show hear play run move live believe bring happen write sit stand lose pay meet "
        "include continue set learn change lead understand watch follow stop create speak spend "
        "grow open walk win offer remember consider appear buy wait serve die send expect build "
        "stay fall cut reach kill remain suggest raise pass sell require report decide pull dans "
        "les avec "
        "pour une sur est pas qui mais nous vous ils elle ville rue The We They He She It This"
    ).split()
)
PUNCTUATION = (".", ",", "!", "?", ":")
EMOJI = ("😀", "🎉", "👍")
TEMPLATES = (
    "{PER} lives in {LOC} .",
    "{PER} works for {ORG} in {LOC} .",
    "{PER} met {PER} at {ORG} .",
    "We saw {PER} in {LOC} yesterday !",
    "{ORG} opened a new office in {LOC} .",
    "Call {PER} tonight , the meeting is in {LOC} .",
)


def _entity(label: str, rng: random.Random) -> list[tuple[str, str]]:
    pool = {"PER": PEOPLE, "LOC": PLACES, "ORG": ORGANISATIONS}[label]
    words = rng.choice(pool).split()
    return [(word, ("B-" if index == 0 else "I-") + label) for index, word in enumerate(words)]


def _filler(count: int, rng: random.Random) -> list[tuple[str, str]]:
    words = []
    for _ in range(count):
        draw = rng.random()
        pool = PUNCTUATION if draw < 0.1 else EMOJI if draw < 0.13 else FILLER
        words.append((rng.choice(pool), "O"))
    return words


def _template(rng: random.Random) -> list[tuple[str, str]]:
    words: list[tuple[str, str]] = []
    for piece in rng.choice(TEMPLATES).split():
        if piece.startswith("{"):
            words.extend(_entity(piece[1:-1], rng))
        else:
            words.append((piece, "O"))
    return words


def synthetic_sentence(rng: random.Random, max_words: int = 55) -> list[tuple[str, str]]:
    """Words with their BIO labels: filler with entities at random places, or a template."""
    if rng.random() < 0.3:
        return _filler(rng.randint(0, 8), rng) + _template(rng) + _filler(rng.randint(0, 8), rng)
    words = _filler(rng.randint(0, max_words // 2), rng)
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(words))
        words[at:at] = _entity(rng.choice(("PER", "PER", "LOC", "ORG")), rng)
    return words[:max_words]


def _corpus() -> list[str]:
    rng = random.Random(1)
    lines = [" ".join(TEMPLATES)]
    lines.append(" ".join(PEOPLE + PLACES + ORGANISATIONS + FILLER + PUNCTUATION + EMOJI))
    lines.extend(" ".join(word for word, _ in synthetic_sentence(rng)) for _ in range(300))
    return lines


def _build_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]  # v5: BertTokenizer

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    # `WordPieceTrainer` numbers (and even picks) its pieces differently from run to run, so
    # the vocabulary is made here: every character, alone and as a "##" piece, then every
    # word of the corpus, in a fixed order. Unknown words still split into "##" pieces.
    words = sorted({word for line in _corpus() for word, _ in pre_tokenizer.pre_tokenize_str(line)})
    characters = sorted({character for word in words for character in word})
    pieces = [*specials, *characters, *(f"##{character}" for character in characters)]
    pieces.extend(word for word in words if word not in set(pieces))
    vocabulary = {piece: index for index, piece in enumerate(pieces)}
    tokenizer = Tokenizer(WordPiece(vocabulary, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.WordPiece()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return BertTokenizerFast(
        tokenizer_object=tokenizer,
        model_max_length=MAX_LENGTH,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        do_lower_case=False,
    )


def _token_labels(sentence: list[tuple[str, str]], word_ids: list[int | None]) -> list[int]:
    """Label ids per token: a word's label on each of its pieces, -100 on special tokens."""
    labels = []
    previous = None
    for word_id in word_ids:
        if word_id is None:
            labels.append(-100)
        else:
            label = sentence[word_id][1]
            if word_id == previous and label.startswith("B-"):
                label = "I-" + label[2:]
            labels.append(LABELS.index(label))
        previous = word_id
    return labels


def build_tiny_ner_model(folder: Path, *, steps: int = 300, seed: int = 0) -> Path:
    """Train the tiny tokenizer and model and save them under `folder`; returns `folder`."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    torch.manual_seed(seed)
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _build_tokenizer()
    label_ids = {label: index for index, label in enumerate(LABELS)}
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=MAX_LENGTH,
        id2label=dict(enumerate(LABELS)),
        label2id=label_ids,
    )
    model = BertForTokenClassification(config)
    # Every sentence tokenized in one call, then trained on in batches of 32.
    batch = 32
    sentences = [synthetic_sentence(rng) for _ in range(steps * batch)]
    encoded = tokenizer(
        [[word for word, _ in sentence] for sentence in sentences],
        is_split_into_words=True,
        truncation=True,
        max_length=MAX_LENGTH,
        padding="max_length",
        return_tensors="pt",
    )
    labels = torch.tensor(
        [_token_labels(sentence, encoded.word_ids(row)) for row, sentence in enumerate(sentences)]
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        rows = slice(step * batch, (step + 1) * batch)
        width = int(encoded["attention_mask"][rows].sum(dim=1).max())  # no all-padding columns
        inputs = {name: tensor[rows, :width].contiguous() for name, tensor in encoded.items()}
        loss = model(**inputs, labels=labels[rows, :width].contiguous()).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder

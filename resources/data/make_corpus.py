#!/usr/bin/env python3
"""Generate tiny-corpus.txt: English-like text for the charlm demo workload.

Standard library only. A small grammar (a few hundred words, a dozen sentence shapes, dialogue,
questions, numbers) is expanded with a seeded RNG, so the output is the same byte for byte on
every run and every Python 3 version (``random.Random`` with an integer seed is stable). The text
is original, machine-made and free of any licence: no external text goes into it.

    python3 make_corpus.py              # rewrite tiny-corpus.txt beside this script
    python3 make_corpus.py --check      # exit 1 if the committed file differs from the output
    python3 make_corpus.py -o - | head  # print it
"""

import argparse
import os
import random
import sys
import textwrap

SEED = 20240601
TARGET_BYTES = 300_000
WIDTH = 76

NAMES = [
    ("Anna", "she"), ("Ben", "he"), ("Clara", "she"), ("Daniel", "he"), ("Elsa", "she"),
    ("Felix", "he"), ("Greta", "she"), ("Hugo", "he"), ("Ida", "she"), ("Jonas", "he"),
    ("Kira", "she"), ("Leo", "he"), ("Mara", "she"), ("Nils", "he"), ("Olga", "she"),
    ("Paul", "he"), ("Rosa", "she"), ("Simon", "he"), ("Tilda", "she"), ("Victor", "he"),
    ("Wanda", "she"), ("Yusuf", "he"), ("Zoe", "she"), ("Oscar", "he"),
]
PRONOUN = {
    "she": {"subj": "she", "obj": "her", "pos": "her"},
    "he": {"subj": "he", "obj": "him", "pos": "his"},
}
ROLES = [
    "baker", "miller", "teacher", "farmer", "sailor", "weaver", "doctor", "painter", "smith",
    "fisher", "gardener", "carpenter", "shepherd", "merchant", "soldier", "singer", "potter",
    "hunter", "clerk", "cook",
]
ANIMALS = [
    "cat", "dog", "horse", "goat", "fox", "owl", "crow", "mouse", "rabbit", "sheep", "cow",
    "duck", "goose", "wolf", "bear", "deer", "frog", "hen", "pig", "swan",
]
THINGS = [
    "apple", "basket", "book", "bottle", "bread", "bridge", "candle", "chair", "coat", "cup",
    "door", "drum", "feather", "flower", "gate", "glove", "hammer", "hat", "key", "ladder",
    "lamp", "letter", "map", "mirror", "needle", "pot", "ring", "rope", "shoe", "spoon",
    "stone", "table", "wagon", "wheel", "window", "boat", "box", "bell", "blanket", "bucket",
    "clock", "coin", "kettle", "knife", "pencil", "plate", "ribbon", "scarf", "sack", "stick",
]
PLACES = [
    "market", "forest", "river", "village", "mill", "harbour", "garden", "church", "school",
    "kitchen", "cellar", "meadow", "hill", "valley", "field", "farm", "road", "inn", "square",
    "station", "library", "bakery", "barn", "shore", "island", "tower", "well", "orchard",
    "lake", "castle", "cottage", "bridge", "pond", "workshop", "stable", "town hall",
]
TIMES = [
    "morning", "evening", "night", "afternoon", "spring", "summer", "autumn", "winter",
    "dawn", "dusk", "harvest", "holiday", "storm", "market day", "wedding",
]
ADJECTIVES = [
    "old", "young", "small", "big", "tall", "short", "red", "blue", "green", "yellow", "black",
    "white", "brown", "grey", "golden", "silver", "quiet", "loud", "happy", "sad", "tired",
    "clever", "brave", "gentle", "angry", "kind", "strange", "heavy", "light", "warm", "cold",
    "wet", "dry", "bright", "dark", "soft", "hard", "round", "narrow", "wide", "empty", "full",
    "new", "broken", "clean", "dirty", "sweet", "bitter", "fresh", "wild", "proud", "shy",
    "busy", "lazy", "careful", "famous", "hungry", "lonely", "lucky", "polite", "rich", "poor",
    "simple", "sleepy", "wooden", "woollen", "little", "ancient", "hidden", "lost",
]
ADVERBS = [
    "slowly", "quickly", "quietly", "loudly", "carefully", "happily", "sadly", "gently",
    "suddenly", "finally", "soon", "often", "never", "always", "again", "together", "alone",
    "early", "late", "twice", "almost", "nearly", "really", "simply", "proudly", "kindly",
    "softly", "bravely", "eagerly", "calmly",
]
# base, past, third person singular
TRANSITIVE = [
    ("find", "found", "finds"), ("carry", "carried", "carries"), ("open", "opened", "opens"),
    ("close", "closed", "closes"), ("paint", "painted", "paints"), ("mend", "mended", "mends"),
    ("sell", "sold", "sells"), ("buy", "bought", "buys"), ("hide", "hid", "hides"),
    ("lose", "lost", "loses"), ("clean", "cleaned", "cleans"), ("fill", "filled", "fills"),
    ("wash", "washed", "washes"), ("bring", "brought", "brings"), ("take", "took", "takes"),
    ("give", "gave", "gives"), ("hold", "held", "holds"), ("build", "built", "builds"),
    ("break", "broke", "breaks"), ("drop", "dropped", "drops"), ("watch", "watched", "watches"),
    ("follow", "followed", "follows"), ("count", "counted", "counts"), ("keep", "kept", "keeps"),
    ("pull", "pulled", "pulls"), ("push", "pushed", "pushes"), ("lift", "lifted", "lifts"),
    ("throw", "threw", "throws"), ("catch", "caught", "catches"), ("borrow", "borrowed", "borrows"),
    ("fix", "fixed", "fixes"), ("draw", "drew", "draws"), ("read", "read", "reads"),
    ("send", "sent", "sends"), ("choose", "chose", "chooses"), ("remember", "remembered", "remembers"),
    ("forget", "forgot", "forgets"), ("want", "wanted", "wants"), ("need", "needed", "needs"),
    ("like", "liked", "likes"), ("love", "loved", "loves"), ("see", "saw", "sees"),
    ("hear", "heard", "hears"), ("touch", "touched", "touches"), ("polish", "polished", "polishes"),
]
INTRANSITIVE = [
    ("walk", "walked", "walks"), ("run", "ran", "runs"), ("sing", "sang", "sings"),
    ("laugh", "laughed", "laughs"), ("sleep", "slept", "sleeps"), ("wait", "waited", "waits"),
    ("dance", "danced", "dances"), ("rest", "rested", "rests"), ("work", "worked", "works"),
    ("listen", "listened", "listens"), ("smile", "smiled", "smiles"), ("shout", "shouted", "shouts"),
    ("travel", "travelled", "travels"), ("swim", "swam", "swims"), ("climb", "climbed", "climbs"),
    ("sit", "sat", "sits"), ("stand", "stood", "stands"), ("cry", "cried", "cries"),
    ("whisper", "whispered", "whispers"), ("hurry", "hurried", "hurries"),
]
MOTION = [
    ("go", "went", "goes"), ("walk", "walked", "walks"), ("run", "ran", "runs"),
    ("ride", "rode", "rides"), ("return", "returned", "returns"), ("hurry", "hurried", "hurries"),
    ("come", "came", "comes"), ("sail", "sailed", "sails"), ("drive", "drove", "drives"),
]
PREPOSITIONS = [
    "near", "behind", "beside", "under", "inside", "above", "across", "along", "beyond",
    "through", "around", "below", "past", "towards",
]
WEATHER = [
    "The rain fell all day", "The wind was cold", "The sun was warm", "Snow covered the roofs",
    "Fog lay on the river", "The sky was clear", "Thunder rolled over the hills",
    "A soft rain began", "The night was still", "The leaves were turning brown",
]
CONNECTIVES = ["and", "but", "so", "because", "while", "although", "until", "before", "after"]
FEELINGS = [
    "glad", "worried", "surprised", "sorry", "afraid", "curious", "proud", "tired", "hungry",
    "sure", "certain", "ready",
]
NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]
SAY = ["said", "asked", "answered", "whispered", "called", "replied", "shouted", "laughed"]


def article(word):
    return "an" if word[0] in "aeiou" else "a"


class Story:
    """One paragraph's cast, so sentences refer back to the same people and things."""

    def __init__(self, rng):
        self.rng = rng
        cast = rng.sample(NAMES, 3)
        self.people = [(name, PRONOUN[p], rng.choice(ROLES)) for name, p in cast]
        self.place = rng.choice(PLACES)
        self.thing = rng.choice(THINGS)
        self.animal = rng.choice(ANIMALS)

    def c(self, seq):
        return self.rng.choice(seq)

    def person(self):
        return self.c(self.people)

    def noun_phrase(self, definite=None):
        rng = self.rng
        noun = self.c([self.thing, self.thing, self.animal, self.c(THINGS), self.c(ANIMALS)])
        if rng.random() < 0.6:
            noun = self.c(ADJECTIVES) + " " + noun
        if definite is None:
            definite = rng.random() < 0.6
        if definite:
            return "the " + noun
        if rng.random() < 0.15:
            return self.c(NUMBER_WORDS) + " " + noun + ("es" if noun.endswith(("sh", "ch", "x", "s")) else "s")
        return article(noun) + " " + noun

    def place_phrase(self):
        place = self.c([self.place, self.place, self.c(PLACES)])
        return self.c(PREPOSITIONS) + " the " + place

    def sentence(self):
        rng = self.rng
        name, pr, role = self.person()
        other, opr, orole = self.c([p for p in self.people if p[0] != name])
        shape = rng.randrange(16)
        if shape == 0:
            return "%s %s %s %s." % (name, self.c(TRANSITIVE)[1], self.noun_phrase(), self.place_phrase())
        if shape == 1:
            return "The %s %s %s, and %s %s." % (
                self.c(ADJECTIVES), self.animal, self.c(INTRANSITIVE)[1], self.c(ADVERBS), "everyone watched")
        if shape == 2:
            return "%s the %s %s to the %s." % (name, role, self.c(MOTION)[1], self.c([self.place, self.c(PLACES)]))
        if shape == 3:
            return '"Where is %s?" %s %s.' % (self.noun_phrase(True), self.c(SAY[1:3] + SAY[:1]), name)
        if shape == 4:
            verb = self.c(TRANSITIVE)
            return '"I %s %s %s," %s %s.' % (verb[1], self.noun_phrase(False), self.place_phrase(), self.c(SAY), name)
        if shape == 5:
            return "In the %s, %s %s %s %s." % (
                self.c(TIMES), pr["subj"], self.c(ADVERBS), self.c(TRANSITIVE)[1], self.noun_phrase())
        if shape == 6:
            return "%s was %s, %s %s %s %s." % (
                name, self.c(FEELINGS), self.c(CONNECTIVES), other, self.c(INTRANSITIVE)[1], self.c(ADVERBS))
        if shape == 7:
            return "%s. %s %s %s %s." % (
                self.c(WEATHER), name, "and " + other if rng.random() < 0.5 else "", self.c(INTRANSITIVE)[1],
                self.place_phrase())
        if shape == 8:
            return "%s gave %s %s, and %s %s %s." % (
                name, opr["obj"] if rng.random() < 0.5 else other, self.noun_phrase(False), opr["subj"],
                self.c(INTRANSITIVE)[1], self.c(ADVERBS))
        if shape == 9:
            verb = self.c(TRANSITIVE)
            return '"Do you %s %s?" %s %s. "%s," %s %s.' % (
                verb[0], self.noun_phrase(True), self.c(SAY[1:2] + SAY[3:4]), name,
                self.c(["Yes", "No", "Maybe", "Of course", "Not today", "I think so"]),
                self.c(SAY[2:3] + SAY[5:6]), other)
        if shape == 10:
            return "Every %s the %s %s %s %s." % (
                self.c(TIMES[:8]), orole, self.c(TRANSITIVE)[2], self.noun_phrase(True), self.place_phrase())
        if shape == 11:
            n = rng.randrange(2, 99)
            return "There were %d %s %s." % (n, self.c(ANIMALS) + "s", self.place_phrase())
        if shape == 12:
            return "%s %s %s %s, %s %s could %s %s." % (
                name.capitalize(), self.c(["opened", "closed", "held", "lifted", "watched"]),
                pr["pos"], self.c(THINGS), "so that", other, self.c(TRANSITIVE)[0], self.noun_phrase(True))
        if shape == 13:
            return "It was %s, and the %s was %s." % (
                self.c(["late", "early", "quiet", "cold", "warm", "dark", "bright"]), self.place, self.c(ADJECTIVES))
        if shape == 14:
            year = 1700 + rng.randrange(300)
            return "In %d the %s %s %s built %s." % (
                year, self.c(ADJECTIVES), self.c(ROLES), self.c(["had", "once", "first"]), self.place_phrase())
        return "%s %s %s the %s %s %s." % (
            name, self.c(["did not", "could not", "would not", "did"]), self.c(TRANSITIVE)[0],
            self.thing, self.c(["after all", "that day", "again", "at all", "in time", "for a while"]),
            self.c(["", "", "", ", and " + pr["subj"] + " knew why"]))

    def paragraph(self):
        sentences = []
        for _ in range(self.rng.randrange(3, 9)):
            s = " ".join(self.sentence().split())
            s = s.replace(" .", ".").replace(" ,", ",")
            sentences.append(s[0].upper() + s[1:])
        return " ".join(sentences)


def generate(seed=SEED, target=TARGET_BYTES, width=WIDTH):
    rng = random.Random(seed)
    parts = []
    size = 0
    chapter = 0
    while size < target:
        chapter += 1
        heading = "Chapter %d: The %s %s\n\n" % (chapter, rng.choice(ADJECTIVES).capitalize(), rng.choice(THINGS + PLACES).title())
        parts.append(heading)
        size += len(heading)
        for _ in range(rng.randrange(12, 30)):
            text = textwrap.fill(Story(rng).paragraph(), width=width) + "\n\n"
            parts.append(text)
            size += len(text)
            if size >= target:
                break
    return "".join(parts).rstrip("\n") + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", default=os.path.join(here, "tiny-corpus.txt"), help="file, or - for stdout")
    parser.add_argument("--check", action="store_true", help="compare with the existing file instead of writing")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--bytes", type=int, default=TARGET_BYTES, help="approximate size")
    args = parser.parse_args()
    text = generate(args.seed, args.bytes)
    data = text.encode("ascii")
    if args.check:
        with open(args.output, "rb") as f:
            same = f.read() == data
        print("%s: %s" % (args.output, "up to date" if same else "DIFFERS from the generator output"))
        return 0 if same else 1
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "wb") as f:
            f.write(data)
        print("wrote %s: %d bytes, %d distinct characters" % (args.output, len(data), len(set(text))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

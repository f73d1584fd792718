"""Word pools for generated sessions, each split in two halves: ``dev`` (what development and the tests use) and
``measure`` (held out: only the measurement run in ``bench/screen.py`` draws from it).

Every pool is split the same stable way (items ordered by a hash of the pool's name and the item, then dealt
alternately), so the halves never depend on the order the lists are written in and a pool of two or more items
always has something on each side. Names are composed from parts (a brand is a head and a tail, a person a first
and a last name), so each half holds hundreds of names nobody wrote down whole.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Sequence

DEV, MEASURE = "dev", "measure"
PARTITIONS = (DEV, MEASURE)


def _rank(pool: str, item: str) -> bytes:
    return hashlib.blake2b(f"{pool}\x1f{item}".encode(), digest_size=8).digest()


@functools.lru_cache(maxsize=4096)
def half(pool: str, items: tuple, partition: str) -> tuple:
    """The ``partition``'s half of ``items`` (a pool of one item is shared by both halves)."""
    if partition not in PARTITIONS:
        raise ValueError(f"partition must be one of {PARTITIONS} (got {partition!r})")
    if len(items) < 2:
        return items
    ordered = sorted(items, key=lambda i: _rank(pool, repr(i)))
    return tuple(ordered[PARTITIONS.index(partition) :: 2])


class Words:
    """Draws from the pools of one partition with one seeded random generator."""

    def __init__(self, rng: random.Random, partition: str):
        self.rng, self.partition = rng, partition

    def pick(self, pool: str, items: Sequence):
        return self.rng.choice(half(pool, tuple(items), self.partition))

    def sample(self, pool: str, items: Sequence, k: int) -> list:
        got = half(pool, tuple(items), self.partition)
        return self.rng.sample(list(got), min(k, len(got)))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def between(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)

    def number(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    # --- composed names -----------------------------------------------------------------------------------
    def person(self) -> str:
        return f"{self.pick('first', FIRST_NAMES)} {self.pick('last', LAST_NAMES)}"

    def first_name(self) -> str:
        return self.pick("first", FIRST_NAMES)

    def brand(self) -> str:
        return self.pick("brand_head", BRAND_HEADS) + self.pick("brand_tail", BRAND_TAILS)

    def domain(self, brand: str) -> str:
        return brand.lower().replace(" ", "") + "." + self.pick("tld", TLDS)

    def reference(self) -> str:
        """An order/booking reference: letters and digits in one of several shapes."""
        letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
        shape = self.pick("ref_shape", REF_SHAPES)
        return "".join(
            self.rng.choice(letters) if c == "A" else str(self.rng.randint(0, 9)) if c == "9" else c for c in shape
        )

    def money(self, lo: float, hi: float) -> str:
        return f"{self.pick('currency', CURRENCIES)}{self.rng.uniform(lo, hi):,.2f}"

    def game(self) -> str:
        return f"{self.pick('game_head', GAME_HEADS)} {self.pick('game_tail', GAME_TAILS)}"


FIRST_NAMES = (
    "Aditi Agnieszka Akira Alejandro Amara Ambrose Anselm Arjun Astrid Aurora Bao Beatriz Benedikt Bilal Bjorn "
    "Blessing Bongani Camila Cedric Chen Chiamaka Cosima Dagny Dariusz Delphine Desmond Dilnoza Dmitri Ebele "
    "Edmund Efua Eleni Elif Emeka Esperanza Ezra Fabienne Farhan Faustina Felix Florin Freya Gaspard Giulia "
    "Habib Hana Hiroshi Hyacinth Idris Ignacio Ines Ingrid Isidore Jae Jasmin Joaquim Jovana Kaito "
    "Kalinda Kamau Katarzyna Kiri Kofi Laszlo Leilani Lorcan Lucian Ludmila Lupita Magnus "
    "Malak Manon Mehmet Mei Mirela Moana Nadia Naveen Nikolai Nilufar Noor Oksana Olamide Oren "
    "Osvaldo Paloma Pavel Pilar Quentin Radek Rafaela Ravi Rosalind Ruslan Sadia Salome Santiago Seo Sigrid "
    "Soren Sunita Tadeo Takeshi Tamsin Teodor Thandiwe Tobias Umar Valentina Vasco Vesna Wanjiru Xiomara "
    "Yannick Yara Yusra Zainab Zeynep Zoltan Ottilie Rhiannon Anders Hamza Keziah Lionel "
    "Meera Niamh Petra Rasmus Selin Tariq Ulla Wren Yasmin Zora Bartholomew Corinna Emil Henrike"
).split()

LAST_NAMES = (
    "Abara Achterberg Adeyemi Albescu Andersen Arslan Aydin Bakshi Balogun Barroso Bergstrom Bianchi "
    "Blomqvist Bouchard Brzezinski Caldeira Castellanos Chaudhry Christodoulou Ciobanu Dabrowski Dahl Delacroix "
    "Demir Dimitrov Duarte Eklund Esposito Falk Farouk Ferreira Fitzgerald Fonseca Fujimoto Gallo Gashi "
    "Grabowski Grimaldi Gunawardena Halvorsen Haddad Hakimi Hashemi Hellberg Horvath Ibrahimovic Ivanova "
    "Jablonski Jaramillo Jovanovic Kagame Kaminski Karlsson Kawasaki Kemal Kowalczyk Krishnan Kuznetsov "
    "Lachance Lindqvist Lombardi Lozano Machado Madsen Maric Markovic Mbeki Medina Mendoza Mikkelsen "
    "Mwangi Nakagawa Navarro Nduka Nieminen Novak Nowicki Obradovic Odhiambo Okonkwo Olsen Oyelaran "
    "Pacheco Palmer Papadakis Pereira Petrov Quaresma Quintero Rahimi Ramaswamy Rasmussen Rocha Romano "
    "Rosales Sadowski Salazar Sandoval Santos Schreiber Sebastiani Sepulveda Silvestri Sokolov Sorensen "
    "Stavros Suzuki Szabo Takahashi Tanaka Toivonen Trivedi Ueda Valdez Vasquez Veldhuis Virtanen Voss "
    "Wachowski Watanabe Weiss Wojcik Yamamoto Yilmaz Zapata Zielinski Zhou Ferraro Haugen Lindgren Moreau"
).split()

BRAND_HEADS = (
    "Amber Apex Arbor Aster Birch Bramble Brisk Cedar Cinder Clover Cobalt Copper Coral Crest Daisy Delta "
    "Drift Dune Elder Ember Fable Fern Flint Fox Garnet Glade Granite Harbor Hazel Heron Hollow Indigo Iris "
    "Ivy Juniper Kestrel Lark Linden Lumen Maple Marble Meadow Mint Moss Nimbus Nova Oak Onyx Orchid Otter "
    "Pebble Pine Plume Quill Raven Reed Ridge Rowan Rust Saffron Sage Slate Sparrow Spruce Summit Thistle "
    "Tidal Topaz Umber Vale Velvet Willow Wren Yarrow Zephyr Basalt Cirrus Fjord Gable Kiln Lagoon Mica"
).split()

BRAND_TAILS = (
    "bay field ford gate grove haven hill hurst lane leaf light line mark mill moor point port ridge row "
    "side stone vale view wick wood works crest dale fall glen holm brook shaw ton well more by pike stead "
    "cliff bridge nest loft yard"
).split()

TLDS = "com net io co app shop store online co.uk de fr nl se es it ca com.au co.nz in example test".split()

REF_SHAPES = ("AA-99999", "99999999", "AAA999", "A9A9A9", "AA9999-99", "999-999-999", "AAAAAA", "A-99999")

CURRENCIES = ("$", "€", "£", "CA$", "A$", "NZ$", "CHF ", "kr ", "R$", "₹")

GAME_HEADS = (
    "Iron Hollow Crimson Silent Broken Astral Gilded Shattered Feral Neon Sunken Ember Frozen Wild Rogue "
    "Velvet Thunder Obsidian Paper Clockwork Lunar Salt Tin Starlit Bitter Wandering Sable Hex Quantum Copper"
).split()

GAME_TAILS = (
    "Tides Crown Circuit Dominion Arena Gambit Skies Rally Legion Outpost Frontier Kingdoms Drift Siege "
    "Harvest Vanguard Relay Tactics Grid Summit Run Court League Dynasty Rift Bastion Cards Rivals Raceway"
).split()

BROWSERS = (  # (program name ScreenPipe reports, how its windows end their titles)
    ("Firefox", " — Mozilla Firefox"),
    ("Google Chrome", " - Google Chrome"),
    ("Chromium", " - Chromium"),
    ("Safari", ""),
    ("Microsoft Edge", " - Microsoft\u200b Edge"),
    ("Brave Browser", " - Brave"),
    ("Vivaldi", " - Vivaldi"),
    ("Arc", ""),
    ("Opera", " - Opera"),
    ("LibreWolf", " — LibreWolf"),
    ("Waterfox", " — Waterfox"),
    ("Orion", ""),
    ("Zen Browser", " — Zen Browser"),
    ("Floorp", " — Floorp"),
)

PHONE_MIRRORS = (  # (program, window title: the device)
    ("iPhone Mirroring", "iPhone"),
    ("scrcpy", "Pixel 8"),
    ("Phone Link", "Phone Link"),
    ("Vysor", "Galaxy S23"),
    ("scrcpy", "SM-A546B"),
    ("QtScrcpy", "Redmi Note 13"),
    ("AirServer", "iPhone 15"),
    ("iPhone Mirroring", "Ana's iPhone"),
)

TIMEZONES = (
    "Pacific/Auckland Pacific/Chatham Australia/Sydney Australia/Perth Asia/Tokyo Asia/Seoul Asia/Shanghai "
    "Asia/Singapore Asia/Kolkata Asia/Kathmandu Asia/Dubai Asia/Tehran Europe/Moscow Europe/Istanbul "
    "Africa/Nairobi Africa/Cairo Africa/Lagos Africa/Johannesburg Europe/Athens Europe/Helsinki Europe/Warsaw "
    "Europe/Berlin Europe/Madrid Europe/Paris Europe/London Europe/Lisbon Atlantic/Reykjavik Atlantic/Azores "
    "America/Sao_Paulo America/Argentina/Buenos_Aires America/Santiago America/Halifax America/St_Johns "
    "America/New_York America/Bogota America/Mexico_City America/Chicago America/Denver America/Phoenix "
    "America/Los_Angeles America/Anchorage Pacific/Honolulu Asia/Manila Asia/Jakarta Asia/Karachi"
).split()

CITIES = (
    "Lisbon Porto Valencia Bologna Ljubljana Krakow Tallinn Bergen Gdansk Seville Lyon Nantes Antwerp Leeds "
    "Cork Glasgow Hamburg Munich Zagreb Split Thessaloniki Izmir Tbilisi Almaty Muscat Pune Kochi Colombo "
    "Penang Cebu Osaka Sapporo Busan Kaohsiung Hobart Adelaide Dunedin Queenstown Nadi Honolulu Oaxaca "
    "Medellin Cusco Montevideo Recife Halifax Quebec Calgary Portland Tucson Savannah Asheville Nairobi "
    "Kigali Accra Windhoek Marrakesh Tunis"
).split()

WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday".split()

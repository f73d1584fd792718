"""A variety probe for the generated sessions: word pools written for it, in none of the generator's pools (checked
by ``tests/screen/test_fifth_round.py``: none but the empty call ending), swapped in for the draws of
the ``dev`` partition, so the pipeline meets outcome phrasings, programs, mirrors, browsers, names, cities, codes and
call talk it was never developed on. The held-out ``measure`` pools stay untouched and unread.

    python bench/screen.py --partition dev --variety --seed S [--kind travel] ...

Development only (``bench/screen.py --variety``): what fails here is a mechanism to find and fix with a test on
words of its own, never a phrase to add. Lines no general reader could take as an outcome were left out.
"""

from __future__ import annotations

from screen.imitation.generator import vocab

OVERRIDES = {
    "checked_in": (
        "Check-in done",
        "You're all set for your flight",
        "Check-in completed successfully",
        "{passenger} is checked in",
        "Thanks, {first}. Check-in is complete",
        "Success: you have checked in for {flight}",
        "Boarding pass sent to your email\nCheck-in complete",
        "Checked in ✓",
        "Have a great trip to {city}! You're checked in",
        "Check-in successful for {flight} to {city}",
        "All set, {first}!\nCheck-in confirmed",
        "You have successfully checked in",
        "Check in complete for {ref}",
    ),
    "order_placed": (
        "Order received: {ref}",
        "Your order has been placed",
        "Thanks for shopping with us! Order {ref}",
        "Order {ref} is confirmed and being prepared",
        "Order complete\n#{ref}",
        "Your purchase was successful\nOrder {ref}",
        "Order {ref} submitted",
        "Order accepted\nReference: {ref}",
        "Payment received. Order {ref} is confirmed",
    ),
    "shipped": (
        "Order {ref} is on the way",
        "Dispatched today: order {ref}",
        "In transit: {ref}",
        "{first}, your order {ref} has been sent",
    ),
    "delivered": (
        "Delivered: order {ref}",
        "Order {ref} has been delivered",
        "Parcel delivered at {time}",
        "Delivery complete for order {ref}",
        "Your order {ref} arrived today",
    ),
    "substituted": (
        "{new} was substituted for {old}",
        "Replaced {old} with {new}",
        "1 substitution: {old} → {new}",
    ),
    "cancelled": (
        "Order {ref} has been cancelled",
        "Your order {ref} was cancelled. Refund of {total} issued",
        "Cancellation confirmed for order {ref}",
        "Order {ref} cancelled: item out of stock",
        "We cancelled order {ref} and refunded you",
    ),
    "call_end": (
        "You have left the call",
        "This meeting has ended",
        "Call finished",
        "The call has ended",
        "Disconnected",
        "Meeting over",
        "You left",
        "Goodbye! You've left the meeting",
        "",
    ),
    "booked": (
        "Booked! Reference {ref}",
        "Your booking is confirmed",
        "Reservation complete: {ref}",
        "We've reserved it for you, {first}",
        "Confirmed: booking {ref}",
        "Booking successful",
    ),
    "mail_app": ("Postbox", "Geary", "Evolution", "eM Client", "KMail", "Mailspring", "Apple Mail", "Tutanota"),
    "browser": (
        ("Epiphany", " — Web"),
        ("Falkon", " - Falkon"),
        ("Midori", " - Midori"),
        ("Pale Moon", " - Pale Moon"),
        ("SeaMonkey", " - SeaMonkey"),
        ("Yandex Browser", ""),
        ("Mullvad Browser", " — Mullvad Browser"),
    ),
    "phone_mirror": (
        ("Scrcpy GUI", "Moto G84"),
        ("AirDroid Cast", "OnePlus 12"),
        ("Reflector", "iPad"),
        ("Phone Mirror", "Xperia 5"),
        ("ApowerMirror", "Nothing Phone"),
    ),
    "city": (
        "Tromso Bilbao Brno Trieste Graz Aarhus Riga Vilnius Plovdiv Cluj Kotor Nicosia Baku Yerevan Tashkent "
        "Kandy Luang Hue Davao Matsuyama Gwangju Tainan Darwin Cairns Nelson Suva Apia Merida Cuenca Arequipa "
        "Salta Salvador Moncton Regina Boise Tulsa Durham Mombasa Arusha Kumasi Maputo Agadir Sfax"
    ).split(),
    "first": (
        "Aurelio Brigid Calix Dunya Eshan Fenna Gideon Halima Ilkka Jorunn Kasimir Liesel Marit Nnamdi Orla "
        "Priyam Quilla Renske Sabri Talulah Ugo Vidar Wilma Xanthe Yoshiro Zdenek Alwin Birte Cyprian Delia"
    ).split(),
    "last": (
        "Abernathy Bostrom Cavanagh Dragomir Eastwick Fairweather Gudmundsdottir Hollis Ivers Juhasz Kettunen "
        "Lindahl Marchetti Nyberg Oduya Pemberton Quist Rautio Strand Thorsen Ulvaeus Vanterpool Wetherby Zubiri"
    ).split(),
    "brand_head": "Alder Bluff Cairn Dapple Estuary Fallow Gorse Heath Inlet Jasper Knoll Loch Marram Nettle".split(),
    "brand_tail": "combe spire wharf croft mere tarn fold garth howe knap".split(),
    "ref_shape": ("AA99AA", "9999-AAAA", "A99-9999", "AAA-99-AAA", "99AA999"),
    "rejoin": ("Rejoin call", "Back to lobby", "Rate this call", "Close window", "Start a new meeting", "Return"),
    "deferral": (
        "Let's pick this up next time",
        "We can circle back on {day}",
        "Nothing to settle today",
        "Let's table it for now",
        "I'd like more data before we choose",
        "Hold that thought until {day}",
        "We haven't decided, let's keep talking on {day}",
        "No decision yet, I'll gather options",
    ),
    "decision": (
        "Done deal: {option}",
        "We'll proceed with {option}",
        "Okay, {option} wins",
        "Consensus is {option}",
        "{option} is the plan then",
        "Approved: {option}",
        "Go with {option}, everyone agrees",
    ),
    "call_app": ("Vocalis", "Kinship", "Roundtable", "Stand", "Assembly", "Link Up"),
}


def install() -> None:
    """Draw the pools named in ``OVERRIDES`` from there (for the rest of the process)."""
    orig_pick, orig_sample = vocab.Words.pick, vocab.Words.sample

    def pick(self, pool, items):
        if pool in OVERRIDES:
            return self.rng.choice(OVERRIDES[pool])
        return orig_pick(self, pool, items)

    def sample(self, pool, items, k):
        if pool in OVERRIDES:
            got = OVERRIDES[pool]
            return self.rng.sample(list(got), min(k, len(got)))
        return orig_sample(self, pool, items, k)

    vocab.Words.pick, vocab.Words.sample = pick, sample

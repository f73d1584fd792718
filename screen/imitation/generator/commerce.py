"""Activities that buy, book and pay: shopping (with deliveries that change later), travel check-ins and
bookings, bill payments and transfers, appointments. Each returns an ``Activity`` with its truth."""

from __future__ import annotations

from screen.imitation.generator.model import BROWSER, NATIVE, PHONE, Activity, Phase
from screen.imitation.generator.people import Owner
from screen.imitation.generator.places import place
from screen.imitation.generator.vocab import CITIES, LAST_NAMES, Words

SHOP_CATEGORIES = {
    "groceries": "Rolled oats 1kg|Oat milk 1L|Sourdough loaf|Free-range eggs x12|Basmati rice 2kg|Greek yoghurt|"
    "Cherry tomatoes|Baby spinach|Dark chocolate 70%|Ground coffee 250g|Cheddar 400g|Chickpeas 4x400g",
    "electronics": "USB-C hub 7-in-1|Noise-cancelling headphones|27in monitor|Mechanical keyboard|"
    "Wireless mouse|Portable SSD 1TB|Webcam 1080p|Smart plug 2-pack|E-reader 6in|Bluetooth speaker",
    "clothing": "Merino crew jumper|Rain shell jacket|Trail running shoes|Linen shirt|Wool socks 3-pack|"
    "Denim jacket|Chino trousers|Down vest|Canvas sneakers|Fleece hoodie",
    "home": "Cast iron skillet|Bamboo cutting board|Linen duvet cover|Desk lamp|Ceramic planter|"
    "French press 1L|Bath towel set|Storage baskets x3|Wall clock|Knife sharpener",
    "books": "The Salt Road (paperback)|A Field Guide to Moss|Kitchen Chemistry|The Quiet Harbour|"
    "Atlas of Small Islands|Learning Go, 2nd ed.|The Night Ferry|Birds of the Coast",
    "garden": "Seed potatoes 2kg|Compost 40L|Pruning shears|Hose reel 30m|Tomato feed|Raised bed kit|"
    "Bird feeder|Lavender plug plants",
    "pets": "Grain-free kibble 6kg|Cat litter 10L|Rope tug toy|Scratching post|Dental chews x30|"
    "Aquarium filter|Pet carrier|Flea drops",
    "hardware": "Cordless drill 18V|Wood screws assorted|Spirit level 60cm|Sandpaper pack|Wall anchors|"
    "Paint roller set|Tape measure 8m|Work gloves",
}
BROWSE_TITLES = ("{category}", "Search results for '{item}'", "{item}", "Best sellers in {category}", "Shop {category}")
BASKET_TITLES = ("Your basket", "Shopping cart", "Cart", "Your bag", "Basket ({count} items)")
CHECKOUT_TITLES = ("Checkout", "Secure checkout", "Delivery & payment", "Review and pay", "Payment")
ADD_CONTROLS = ("Add to basket", "Add to cart", "Add to bag", "Buy now", "Add")
CHECKOUT_CONTROLS = ("Place order", "Pay now", "Complete purchase", "Place your order", "Buy now", "Pay {total}")
ORDER_PLACED = (
    "Order {ref} placed",
    "Thank you for your order!\nOrder number: {ref}",
    "Your order is confirmed\nOrder {ref}",
    "Order confirmed\n{ref}",
    "Thanks, {first}! Your order {ref} has been placed.",
    "We've received your order {ref}",
    "Order #{ref} confirmed",
    "Success! Order {ref} has been submitted",
    "Purchase complete\nReceipt {ref}",
    "Your order {ref} is booked in for delivery",
    "All done! Order {ref} is confirmed",
    "Order placed successfully\nReference {ref}",
)
PAYMENT_DECLINED = (
    "Your card was declined",
    "Payment declined. Please try another card",
    "We couldn't process your payment: card declined",
    "Transaction declined by your bank",
    "Payment unsuccessful: insufficient funds",
    "Card declined\nTry a different payment method",
    "Sorry, your payment was declined",
    "Payment was not authorised: declined",
)
SHIPPED = (
    "Order {ref} has shipped",
    "Your parcel is out for delivery",
    "Order {ref}: dispatched",
    "Good news, {first}: order {ref} is on its way",
    "Shipped: order {ref}",
    "Your order {ref} is out for delivery today",
)
DELIVERED = (
    "Order {ref} delivered",
    "Your order {ref} was delivered at {time}",
    "Delivered today at {time}\nOrder {ref}",
    "Package delivered: order {ref}",
    "Your parcel has been delivered",
    "Order {ref} arrived at {time}",
)
SUBSTITUTED = (
    "1 item substituted: {old} for {new}",
    "We substituted {old} with {new}",
    "Substitution: {new} instead of {old}",
    "{old} was replaced with {new}",
)
CANCELLED = (
    "Order {ref} cancelled",
    "Your order {ref} has been cancelled and refunded",
    "Refund issued for order {ref}",
    "We're sorry: order {ref} was cancelled",
    "Order {ref} voided. Your refund is on its way",
    "Cancelled: order {ref}. You have been refunded {total}",
)
OLD_ORDERS = ("Delivered {day} Mar", "Cancelled {day} Apr", "Refunded {day} Feb", "Delivered {day} Jan", "Shipped")


def _items(w: Words, category: str, k: int) -> list[tuple[str, str]]:
    names = SHOP_CATEGORIES[category].split("|")
    return [(name, w.money(2, 180)) for name in w.sample(f"items_{category}", names, k)]


def shopping(w: Words, owner: Owner) -> Activity:
    """Browse, basket, checkout, a confirmation (or a declined card); sometimes the order changes later."""
    p = place(w, (BROWSER, BROWSER, PHONE, NATIVE))
    category = w.pick("shop_category", list(SHOP_CATEGORIES))
    items = _items(w, category, w.number(2, 4))
    ref, total = w.reference(), w.money(10, 400)
    history = w.chance(0.35)
    item_lines = [f"{name} {price}" for name, price in items]
    browse_title = w.pick("browse_title", BROWSE_TITLES).format(category=category.title(), item=items[0][0])
    browse = [
        *item_lines,
        w.pick("add_control", ADD_CONTROLS),
        w.pick("sort", ("Sort by: Relevance", "Sort: Price low to high", "Filter", "Free delivery over 50")),
        f"{w.number(3, 4)}.{w.number(0, 9)} out of 5 stars ({w.number(12, 900)})",
    ]
    basket_title = w.pick("basket_title", BASKET_TITLES).format(count=len(items))
    basket = [*item_lines, f"Subtotal {total}", w.pick("to_checkout", ("Checkout", "Proceed to checkout", "Continue"))]
    if history:
        basket += ["Your recent orders"] + [
            f"Order {w.reference()} {w.pick('old_order', OLD_ORDERS).format(day=w.number(2, 28))}" for _ in range(3)
        ]
    checkout = [
        f"Deliver to {owner.display_name}",
        f"{w.number(2, 200)} {w.pick('street', ('Alder Row', 'Quay Street', 'Mill Lane', 'Harbour Road'))}",
        w.pick("slot", ("Tomorrow 12:00-14:00", "Standard delivery (2-4 days)", "Next day", "Saturday 9-11am")),
        f"Pay with card ending {w.number(1000, 9999)}",
        f"Total {total}",
        w.pick("checkout_control", CHECKOUT_CONTROLS).format(total=total),
    ]
    declined = w.chance(0.15)
    words = {"ref": ref, "first": owner.first, "total": total}
    if declined:
        result = w.pick("payment_declined", PAYMENT_DECLINED)
        outcome, polarity = "declined", "negative"
    else:
        result = w.pick("order_placed", ORDER_PLACED).format(**words)
        outcome, polarity = "confirmed", "positive"
    phases = [
        Phase(p.at(browse_title, f"{category}/browse"), p.frame(w, browse), w.between(180, 600)),
        Phase(p.at(basket_title, "basket"), p.frame(w, basket), w.between(60, 200)),
        Phase(p.at(w.pick("checkout_title", CHECKOUT_TITLES), "checkout"), p.frame(w, checkout), w.between(60, 200)),
        Phase(
            p.at("Order confirmation" if not declined else "Payment", f"orders/{ref}"),
            p.frame(w, [*result.split("\n"), f"Order total {total}"]),
            w.between(30, 120),
            part="outcome",
        ),
    ]
    act = Activity("shopping", "purchase.order", outcome, polarity, result.split("\n")[0], phases, surface_kind=p.kind)
    if history:
        act.distractors.add("history")
    if not declined and w.chance(0.4):
        _later_delivery(w, act, p, ref, total, owner, category)
    return act


def _later_delivery(w: Words, act: Activity, p, ref: str, total: str, owner: Owner, category: str) -> None:
    """The order's status page (same site) or an email, hours later: shipped, delivered (maybe with a
    substitution) or cancelled."""
    fate = w.pick("order_fate", ("delivered", "delivered", "substituted", "cancelled", "shipped"))
    words = {"ref": ref, "first": owner.first, "total": total, "time": f"{w.number(9, 19)}:{w.number(10, 59)}"}
    if fate == "cancelled":
        line, outcome, polarity = w.pick("cancelled", CANCELLED).format(**words), "cancelled", "negative"
    elif fate == "shipped":
        line, outcome, polarity = w.pick("shipped", SHIPPED).format(**words), "shipped", "neutral"
    else:
        line, outcome, polarity = w.pick("delivered", DELIVERED).format(**words), "delivered", "positive"
    lines = [line]
    if fate == "substituted":
        old, new = _items(w, category, 2)
        lines.append(w.pick("substituted", SUBSTITUTED).format(old=old[0], new=new[0]))
        act.later_detail, polarity = "substituted", "mixed"
    act.later_outcome, act.later_polarity, act.later_evidence = outcome, polarity, line
    if w.chance(0.5):
        surface = p.at(f"Order {ref}", f"orders/{ref}")
        text = p.frame(w, [f"Order {ref}", *lines, w.pick("rate", ("Rate your delivery", "Track package", "Help"))])
    else:
        surface, text = _email(w, owner, p.brand, f"Update on your order {ref}", lines)
    act.later = [Phase(surface, text, w.between(40, 150), part="outcome")]
    act.features.add("later_outcome")


MAIL_APPS = ("Mail", "Outlook", "Thunderbird", "Spark", "Mimestream", "Airmail", "Proton Mail", "Canary Mail")


def _email(w: Words, owner: Owner, sender: str, subject: str, body: list[str]):
    """An email read in a mail program: the list, the message with its sender, subject and body."""
    from screen.imitation.generator.model import Surface

    app = w.pick("mail_app", MAIL_APPS)
    inbox = [f"Inbox ({w.number(2, 40)})", f"{sender}", subject, f"From: {sender} <no-reply@{sender.lower()}.com>"]
    text = "\n".join([*inbox, f"To: {owner.email}", f"Hi {owner.first},", *body, "Reply", "Forward"])
    return Surface(app, f"{subject} — {app}" if w.chance(0.6) else "Inbox", "", NATIVE), text


# --- travel ------------------------------------------------------------------------------------------------
CHECKED_IN = (
    "You're checked in",
    "Check-in complete",
    "Checked in: {flight}",
    "You are checked in for flight {flight}",
    "Boarding pass issued\nYou're all checked in",
    "Online check-in successful",
    "Check-in confirmed for {passenger}",
    "Done! You're checked in for {city}",
)
BOOKED = (
    "Booking confirmed",
    "Your reservation is confirmed",
    "Reservation {ref} confirmed",
    "You're booked! Confirmation {ref}",
    "Booking complete. Confirmation number {ref}",
    "Your trip is booked",
    "Thanks {first}, your stay is confirmed",
    "Tickets booked: {ref}",
)
BOOKING_FAILED = (
    "Booking failed: the room is no longer available",
    "We could not complete your booking",
    "Reservation failed. Please try again",
    "Sorry, this fare is no longer available. Booking not completed",
)
STAYS = ("hotel", "apartment", "guesthouse", "cabin", "hostel")
TRAINS = ("train", "coach", "ferry")


def travel(w: Words, owner: Owner) -> Activity:
    """An online check-in for a flight, or a booking (a stay, a train, a ferry); sometimes confirmed by email."""
    if w.chance(0.5):
        return _check_in(w, owner)
    return _booking(w, owner)


def _check_in(w: Words, owner: Owner) -> Activity:
    airline = w.brand() + w.pick("airline_tail", (" Air", " Airways", " Airlines", "jet", " Wings"))
    p = place(w, (BROWSER, BROWSER, PHONE), brand=airline)
    city = w.pick("city", CITIES)
    flight = f"{airline[:2].upper()} {w.number(100, 999)}"
    ref = w.reference()
    seat = f"{w.number(3, 38)}{w.pick('seat', 'ABCDEF')}"
    words = {"flight": flight, "passenger": owner.display_name, "city": city, "ref": ref, "first": owner.first}
    result = w.pick("checked_in", CHECKED_IN).format(**words)
    phases = [
        Phase(
            p.at("Online check-in", f"checkin/{ref}"),
            p.frame(
                w,
                [
                    "Online check-in",
                    f"Flight {flight} to {city}",
                    f"Passenger: {owner.display_name}",
                    w.pick("seat_prompt", ("Select your seat", "Choose seats", "Seat map")),
                ],
            ),
            w.between(120, 500),
        ),
        Phase(
            p.at("Online check-in", f"checkin/{ref}/extras"),
            p.frame(
                w,
                [
                    f"Seat {seat} selected",
                    f"Baggage: 1 x {w.number(15, 32)}kg",
                    w.pick("checkin_control", ("Confirm check-in", "Check in now", "Continue")),
                ],
            ),
            w.between(90, 400),
        ),
        Phase(
            p.at("Boarding pass", f"checkin/{ref}/done"),
            p.frame(
                w,
                [
                    *result.split("\n"),
                    f"Flight {flight} gate opens {w.number(5, 9)}:{w.number(10, 55)}",
                    f"Booking ref {ref}",
                ],
            ),
            w.between(40, 200),
            part="outcome",
        ),
    ]
    act = Activity(
        "travel", "travel.check_in", "confirmed", "positive", result.split("\n")[0], phases, surface_kind=p.kind
    )
    if w.chance(0.35):
        _confirmation_email(
            w,
            act,
            owner,
            airline,
            f"Your boarding pass for {flight}",
            [f"You're checked in for {flight} to {city}", f"Booking reference {ref}", f"Seat {seat}"],
        )
    return act


def _booking(w: Words, owner: Owner) -> Activity:
    stay = w.chance(0.6)
    brand = w.brand() + w.pick("booking_tail", (" Stays", " Rail", " Travel", " Trips", " Lines", ""))
    p = place(w, (BROWSER, BROWSER, NATIVE, PHONE), brand=brand)
    city, ref = w.pick("city", CITIES), w.reference()
    what = w.pick("stay", STAYS) if stay else w.pick("train", TRAINS)
    price = w.money(40, 900)
    if stay:
        options = [f"{w.brand()} {what.title()} {w.money(60, 300)} per night" for _ in range(3)]
        detail = [
            f"{w.number(1, 6)} nights",
            f"Check-in {w.pick('weekday', ('Fri', 'Sat', 'Mon'))} 3 pm",
            f"Guests: {w.number(1, 4)}",
            f"Total {price}",
        ]
    else:
        options = [f"{w.number(6, 21)}:{w.number(10, 55)} {city} {w.money(20, 140)}" for _ in range(3)]
        detail = [
            f"{what.title()} to {city}",
            f"Passenger: {owner.display_name}",
            f"Coach {w.number(1, 12)}",
            f"Total {price}",
        ]
    words = {"ref": ref, "first": owner.first}
    failed = w.chance(0.12)
    result = (w.pick("booking_failed", BOOKING_FAILED) if failed else w.pick("booked", BOOKED)).format(**words)
    phases = [
        Phase(
            p.at(f"{what.title()}s in {city}" if stay else f"{city} times", "search"),
            p.frame(w, [f"Search results: {city}", *options, "Sort: Recommended"]),
            w.between(150, 600),
        ),
        Phase(
            p.at("Your details", "book/details"),
            p.frame(
                w,
                [
                    *detail,
                    "Guest details",
                    f"Email {owner.email}",
                    w.pick("book_control", ("Book now", "Reserve", "Confirm and pay")),
                ],
            ),
            w.between(90, 300),
        ),
        Phase(
            p.at("Confirmation" if not failed else "Booking", f"book/{ref}"),
            p.frame(w, [*result.split("\n"), *detail[:2]]),
            w.between(30, 150),
            part="outcome",
        ),
    ]
    outcome, polarity = ("failure", "negative") if failed else ("confirmed", "positive")
    act = Activity("travel", "travel.booking", outcome, polarity, result.split("\n")[0], phases, surface_kind=p.kind)
    if not failed and w.chance(0.3):
        _confirmation_email(
            w, act, owner, brand, f"Booking confirmation {ref}", [f"Your booking {ref} is confirmed", *detail[:2]]
        )
    return act


def _confirmation_email(w: Words, act: Activity, owner: Owner, sender: str, subject: str, body: list[str]) -> None:
    """The confirmation email read right after: part of the same activity, not an email event of its own."""
    surface, text = _email(w, owner, sender, subject, body)
    act.phases.append(Phase(surface, text, w.between(30, 120), part="after"))
    act.features.add("confirmation_email")


# --- payments ----------------------------------------------------------------------------------------------
BILLERS = ("Water", "Energy", "Power", "Gas", "Broadband", "Council tax", "Phone", "Insurance", "Rent")
PAID = (
    "Payment successful",
    "You paid {amount}",
    "Payment complete\nReference {ref}",
    "Thank you! Your payment of {amount} has been received",
    "Payment sent to {payee}",
    "Transfer of {amount} sent",
    "Paid {amount} to {payee}",
    "Your payment went through",
    "Payment confirmed: {amount}",
    "Transfer complete",
)
FINANCE_DECLINED = (
    "Payment declined",
    "Insufficient funds",
    "Payment failed: card declined",
    "Transfer declined by your bank",
    "Your payment could not be completed",
    "Declined: daily limit reached",
)


def payment(w: Words, owner: Owner) -> Activity:
    """A bill paid on the biller's site or a bank app, or a transfer to a person; paid or declined."""
    transfer = w.chance(0.35)
    bank = w.brand() + w.pick("bank_tail", (" Bank", " Credit Union", " Pay", " Money", " Savings", ""))
    amount, ref = w.money(12, 1400), w.reference()
    if transfer:
        payee = w.person()
        p = place(w, (BROWSER, PHONE, NATIVE), brand=bank)
        first = [
            f"Transfer to {payee}",
            f"Sort code {w.number(10, 99)}-{w.number(10, 99)}-{w.number(10, 99)}",
            f"Account ending {w.number(1000, 9999)}",
            "Recipient details",
        ]
        second = [
            f"Amount {amount}",
            f"Reference: {w.pick('transfer_ref', ('rent', 'dinner', 'tickets', 'gift'))}",
            w.pick("transfer_control", ("Send", "Send money", "Confirm transfer", "Continue")),
        ]
        family, titles = "finance.transfer", ("Move money", "Confirm transfer")
    else:
        biller = w.brand() + " " + w.pick("biller", BILLERS)
        payee = biller
        p = place(w, (BROWSER, BROWSER, PHONE), brand=biller if w.chance(0.6) else bank)
        first = [
            f"{biller} bill",
            f"Amount due {amount}",
            f"Due date {w.number(1, 28)} {w.pick('month', ('May', 'June', 'July'))}",
            f"Account {w.number(100000, 999999)}",
            "Pay bill",
        ]
        second = [
            f"Pay {amount}",
            f"Card ending {w.number(1000, 9999)}",
            w.pick("pay_control", ("Pay now", "Confirm payment", "Submit payment", "Pay")),
        ]
        family, titles = "finance.bill_payment", ("Your bill", "Payment")
    declined = w.chance(0.18)
    words = {"amount": amount, "ref": ref, "payee": payee}
    result = (w.pick("finance_declined", FINANCE_DECLINED) if declined else w.pick("paid", PAID)).format(**words)
    phases = [
        Phase(p.at(titles[0], "pay"), p.frame(w, first), w.between(60, 300)),
        Phase(p.at(titles[1], "pay/confirm"), p.frame(w, second), w.between(45, 200)),
        Phase(
            p.at(titles[1], f"pay/{ref}"),
            p.frame(w, [*result.split("\n"), f"Reference {ref}"]),
            w.between(30, 120),
            part="outcome",
        ),
    ]
    outcome, polarity = ("declined", "negative") if declined else ("paid", "positive")
    return Activity("payments", family, outcome, polarity, result.split("\n")[0], phases, surface_kind=p.kind)


# --- appointments ------------------------------------------------------------------------------------------
PRACTICES = ("Dental", "Physio", "Family Practice", "Eye Clinic", "Dermatology", "Vet Clinic", "Health Centre")
APPOINTMENT_BOOKED = (
    "Appointment confirmed",
    "Your appointment is booked",
    "Booked: {when} with {who}",
    "You're all set for {when}",
    "Appointment scheduled for {when}",
    "Confirmed! See you {when}",
)
CONFIRM_CONTROLS = ("Confirm booking", "Book appointment", "Confirm", "Book")
APPOINTMENT_CANCELLED = ("Appointment cancelled", "Your appointment on {when} has been cancelled")


def appointment(w: Words, owner: Owner) -> Activity:
    """An appointment booked (or cancelled) on a practice's booking page or app."""
    practice = w.brand() + " " + w.pick("practice", PRACTICES)
    p = place(w, (BROWSER, PHONE, NATIVE), brand=practice)
    who = "Dr " + w.pick("last", LAST_NAMES)
    when = (
        f"{w.pick('weekday', ('Tue', 'Wed', 'Thu', 'Fri'))} {w.number(1, 28)} {w.pick('month', ('May', 'June'))} "
        f"at {w.number(8, 17)}:{w.pick('minute', ('00', '15', '30', '45'))}"
    )
    cancel = w.chance(0.15)
    words = {"when": when, "who": who}
    result = (
        w.pick("appt_cancelled", APPOINTMENT_CANCELLED) if cancel else w.pick("appt_booked", APPOINTMENT_BOOKED)
    ).format(**words)
    phases = [
        Phase(
            p.at("Book an appointment", "book"),
            p.frame(
                w,
                [
                    "Choose a practitioner",
                    who,
                    f"{w.brand()} clinic",
                    "Available times",
                    f"{w.number(8, 11)}:00",
                    f"{w.number(12, 16)}:30",
                    "Next available",
                ],
            ),
            w.between(90, 400),
        ),
        Phase(
            p.at("Your details", "book/details"),
            p.frame(
                w,
                [
                    f"Patient: {owner.display_name}",
                    "Reason for visit",
                    when,
                    "Cancel appointment" if cancel else w.pick("appt_control", CONFIRM_CONTROLS),
                ],
            ),
            w.between(60, 240),
        ),
        Phase(
            p.at("Confirmation", "book/done"),
            p.frame(w, [*result.split("\n"), practice]),
            w.between(30, 100),
            part="outcome",
        ),
    ]
    outcome, polarity = ("cancelled", "negative") if cancel else ("confirmed", "positive")
    return Activity(
        "appointments", "health.appointment", outcome, polarity, result.split("\n")[0], phases, surface_kind=p.kind
    )

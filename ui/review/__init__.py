"""The review inbox of the poisoning guard, and the Review menu."""

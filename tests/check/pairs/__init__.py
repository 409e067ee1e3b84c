"""Fix-history pairs: a real fallback function of a wheel and an on-device version we wrote."""

"""Actuator models: electric (DC motor through a gear, battery) and, later, pneumatic."""

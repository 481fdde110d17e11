"""The throwaway lesson's own tool, with its own data."""


def tools(world) -> dict:
    def km_to_miles(km) -> str:
        return f"{float(km) * world.factors['km_to_miles']:.1f}"
    return {"km_to_miles": km_to_miles}

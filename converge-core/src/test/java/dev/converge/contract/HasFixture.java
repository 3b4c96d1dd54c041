package dev.converge.contract;

/** What every part of the contract needs from the suite that runs it. */
public interface HasFixture {
    ContractFixture fixture();
}
